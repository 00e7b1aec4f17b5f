import os
def f():
    # one
    return 1

def g():
    return 2
