from src.greet import greet

print(greet('bob'))
