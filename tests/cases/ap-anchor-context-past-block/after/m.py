class A:
    def first(self):
        a = 1
        return a + 1

    def second(self):
        b = 2
        return b
