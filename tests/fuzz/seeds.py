"""What every corpus generator here ends with: writing a fuzz target's
seed inputs to OUT_DIR (its first argument, else corpus/<target> beside
this file) as seed-NN-<first 8 hex digits of their SHA-1>. The folder's
old seed-* files are replaced; other files (crashes kept as regression
inputs) stay."""
import hashlib
import os
import sys


def write(target, inputs):
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "corpus", target)
    os.makedirs(out, exist_ok=True)
    for name in os.listdir(out):
        if name.startswith("seed-"):
            os.remove(os.path.join(out, name))
    for k, data in enumerate(inputs):
        digest = hashlib.sha1(data).hexdigest()[:8]
        with open(os.path.join(out, "seed-%02d-%s" % (k, digest)), "wb") as f:
            f.write(data)
    print("wrote %d inputs to %s" % (len(inputs), out))
