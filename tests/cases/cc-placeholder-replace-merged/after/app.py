import os


def load(path):
    with open(path) as f:
        return f.read()


def save(path, text):
    with open(path, "w") as f:
        f.write(text)


def main():
    print(len(load("x")))
