class A:
    def first(self):
        a = 1
        return a

    def second(self):
        b = 2
        return b
