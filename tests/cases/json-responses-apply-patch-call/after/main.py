from src.greet import hello

print(hello('bob'))
