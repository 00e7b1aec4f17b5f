x = 1
return x

x = 1
return x
end
