class A:
    def run(self):
        pass


class B(A):
    def run(self):
        pass
