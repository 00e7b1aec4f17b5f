def usage():
    text = """
Usage: inventory [options]
  --path FILE   inventory file
"""
    return text.strip()


def version():
    return text.strip()
