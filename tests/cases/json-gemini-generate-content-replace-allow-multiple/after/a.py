x = new()
y = new()
