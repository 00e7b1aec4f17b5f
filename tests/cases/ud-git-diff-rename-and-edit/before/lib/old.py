import os


def f():
    return 1


def g():
    return os.name
