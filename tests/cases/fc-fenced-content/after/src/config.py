GREETING = "Hello"
