class A:
    def size(self):
        return 0


class B:
    def run(self):
        return 0
