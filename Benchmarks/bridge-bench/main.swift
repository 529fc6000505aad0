print("bridge-bench: not built yet")
