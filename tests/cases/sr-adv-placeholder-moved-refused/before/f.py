def f():
    a = 1
    b = 2
    return a

def g():
    # ...
    pass
