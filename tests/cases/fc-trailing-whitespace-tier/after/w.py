x = 1   
z = x
print(y)	
