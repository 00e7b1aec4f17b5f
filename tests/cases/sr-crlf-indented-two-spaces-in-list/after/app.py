def f():
    return 2

def g():
    return 2
