import os


def f():
    return 2


def g():
    return os.name
