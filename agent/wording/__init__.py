"""wording"""
