from src.app import add
