def f():
    a = 1
    b = 20
    c = 3
    return a + b + c
