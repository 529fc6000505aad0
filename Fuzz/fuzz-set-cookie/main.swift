print("fuzz-set-cookie: replay driver not built yet")
