def load(path,
def save(path):
    write(path)
