GREETING = 'hello'
print(GREETING)
