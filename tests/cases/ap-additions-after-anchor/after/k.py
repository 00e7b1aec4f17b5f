class A:
    def stop(self):
        pass

    def run(self):
        pass


class B(A):
    def run(self):
        pass
