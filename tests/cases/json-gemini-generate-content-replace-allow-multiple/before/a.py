x = old()
y = old()
