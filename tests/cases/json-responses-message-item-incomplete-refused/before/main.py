from lib import old_name
print(old_name())
