def greet(name):
    return "Hello " + name


def main():
    print(greet("world"))
