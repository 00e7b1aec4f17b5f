a = 'x'
b = ‘y’
