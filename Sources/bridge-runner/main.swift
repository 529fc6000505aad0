print("bridge-runner: not built yet")
