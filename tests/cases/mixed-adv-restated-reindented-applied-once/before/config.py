class Config:
    def load(self):
        path = "a.toml"
        return read(path)
