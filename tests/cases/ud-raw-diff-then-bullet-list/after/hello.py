def greet(name):
    return f"Hello, {name}!"


def main():
    print(greet("world"))
