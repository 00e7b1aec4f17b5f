def greet(name):
    print("Hi " + name)


def main():
    greet("world")
