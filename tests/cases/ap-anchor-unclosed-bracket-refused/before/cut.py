def load(path):
    data = read(path,
def save(path):
    write(path)
