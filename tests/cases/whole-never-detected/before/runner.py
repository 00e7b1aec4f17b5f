def load(path):
    return []


def run(path):
    for step in load(path):
        step()
