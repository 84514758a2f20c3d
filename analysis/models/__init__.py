"""The models, one module each; every module here defines `MODEL` (analysis.common.Model).

analysis.registry finds them by listing this package, so adding a model is one new file
here (plus its tests); nothing else names it. They import only analysis.common,
analysis.draw and analysis.present, never the pipeline, the registry or the CLI.
"""
