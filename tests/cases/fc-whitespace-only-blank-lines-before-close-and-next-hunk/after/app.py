def f():
    a = 1
    b = 20
    c = 30
    return a + b + c
