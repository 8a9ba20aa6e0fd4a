def call(args):
    x, = args
    s = "ab"
    return (x,)
