print("fuzz-script-value: replay driver not built yet")
