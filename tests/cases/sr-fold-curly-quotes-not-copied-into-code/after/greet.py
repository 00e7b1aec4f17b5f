GREETING = 'hello, world'
FAREWELL = "bye"
print(GREETING)
