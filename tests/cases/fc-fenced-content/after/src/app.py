from config import GREETING
def greet(name):
    print(GREETING + name)


def main():
    greet("world")
