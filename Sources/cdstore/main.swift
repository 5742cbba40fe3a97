print("cdstore")
