def load(path):
    return []


def run(path, verbose=False):
    for step in load(path):
        if verbose:
            print(f"running {step.__name__}")
        step()
