class Config:
    def load(self):
        path = "b.toml"
        return read(path)
