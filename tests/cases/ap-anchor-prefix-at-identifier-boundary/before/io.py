def load_config(path):
    return read(path)


def load(path):
    return read(path)
