"""Manifests of the models perfalign serves (data only)."""
