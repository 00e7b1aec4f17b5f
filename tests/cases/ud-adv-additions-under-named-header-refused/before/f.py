class A:
    def a(self):
        pass


class B:
    pass
