"""perfalign's runtime: parsing, verification, models, the optimize pipeline, the store and the language server."""
