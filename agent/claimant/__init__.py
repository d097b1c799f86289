"""claimant"""
