a = 'z'
b = ‘y’
