"""staff"""
