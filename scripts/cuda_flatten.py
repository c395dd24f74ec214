"""One kernel module of cuda/ as a single source (its headers inlined), for the
standalone CuPy checks on the GPU machine, which has no cargo: codes.cuh is the
one build.rs writes (target/*/build/bitgraphblas-*/out/codes.cuh)."""
import os
import re


def flatten(codes_path, module, out_path):
    """Writes cuda/`module` with every `#include "..."` inlined once to `out_path`."""
    codes = open(codes_path).read()
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'cuda')
    seen = set()

    def flat(name):
        if name in seen:
            return ''
        seen.add(name)
        src = codes if name == 'codes.cuh' else open(os.path.join(root, name)).read()
        out = []
        for line in src.splitlines():
            m = re.match(r'\s*#include\s+"([^"]+)"', line)
            if m:
                out.append(flat(m.group(1)))
            elif line.strip() != '#pragma once':
                out.append(line)
        return '\n'.join(out)

    open(out_path, 'w').write(flat(module))
