print("stctl: not built yet")
