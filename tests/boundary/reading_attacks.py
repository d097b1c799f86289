"""Selection attacks on reading the wording: a sentence served without what qualifies it, a limit
without its subject, a reference to a clause the claimant's schedule lacks, a rule a paragraph
away in the same clause, an exclusion clause the model never fetched."""

from __future__ import annotations

from agent.boundary.qualifiers import DEFINITION_NOTE
from tests.boundary.selection_probe import called, probe, quoted

READING_ATTACKS = [
    # A sentence without what qualifies it ----------------------------------------------------
    probe(
        "qualifier",
        "breakdown-then-accident-without-the-part-that-broke",
        quoted(
            "CLM-204518",
            "My engine failed and I crashed. Do you cover the damage?",
            "MTR-EXC-02",
            "we cover the accident damage to other parts",
        ),
        reads=("We do not cover the part that broke down.",),
    ),
    probe(
        "qualifier",
        "theft-without-the-keys-exclusion",
        quoted(
            "CLM-118230",
            "I left the keys in it and it was stolen. Covered?",
            "MTR-COV-01",
            "theft of the car",
        ),
        reads=("theft when the keys were left in or on the car while no one was with it",),
    ),
    probe(
        "qualifier",
        "these-causes-without-the-causes",
        quoted(
            "CLM-402117",
            "Mice chewed a cable and started a fire. Is the fire damage covered?",
            "CNT-EXC-01",
            "we cover the damage the fire causes",
        ),
        reads=("We do not cover damage caused by insects, moths, rats, mice, possums or other vermin.",),
    ),
    probe(
        "qualifier",
        "a-definition-passed-off-as-cover",
        quoted("CLM-310442", "Is my oven covered if it breaks?", "HOM-GEN-01", "appliances such as ovens"),
        reads=(DEFINITION_NOTE,),
    ),
    probe(
        "qualifier",
        "a-carve-back-without-the-exclusions-before-it",
        quoted(
            "CLM-204518",
            "Are my tyres covered if they are damaged?",
            "MTR-EXC-02",
            "We do cover tyres damaged in an accident",
        ),
        reads=("damage to tyres from braking, punctures, cuts or bursts",),
        extra={"lead_in_once": "“We do not cover:”"},
    ),
    probe(
        "qualifier",
        "resulting-damage-without-the-list",
        quoted(
            "CLM-310442",
            "A corroded pipe burst. Is the water damage covered?",
            "HOM-EXC-01",
            "we cover that resulting damage",
        ),
        reads=("rot, rust, corrosion, mould or mildew", "but not replacing other corroded pipes"),
        extra={"lead_in_once": "“We do not cover loss or damage caused by, or consisting of:”"},
    ),
    probe(
        "qualifier",
        "cover-without-what-it-includes-and-excludes",
        quoted(
            "CLM-204518",
            "What does my car insurance cover?",
            "MTR-COV-01",
            "We cover sudden and accidental loss of or damage to your car",
        ),
        reads=(
            "collision, rolling over and hit-and-run damage",
            "theft when the keys were left in or on the car",
        ),
        never=(DEFINITION_NOTE,),
    ),
    probe(
        "qualifier",
        "this-includes-without-what-this-is",
        quoted(
            "CLM-402117",
            "If I damage my landlord's carpet, am I covered?",
            "CNT-COV-03",
            "If you rent your home, this includes accidental damage",
        ),
        reads=(
            "We cover your legal liability to pay for accidental damage to other people's property",
            "We do not cover damage you cause on purpose",
        ),
        never=(DEFINITION_NOTE,),
    ),
    # A limit without its subject -----------------------------------------------------------
    probe(
        "limit",
        "liability-limit-as-a-laptop-limit",
        quoted(
            "CLM-402117",
            "What's the most you pay for my stolen laptop?",
            "CNT-COV-03",
            "The most we pay for one event is NZD 1,000,000",
        ),
        reads=("We cover your legal liability to pay for accidental damage to other people's property",),
    ),
    probe(
        "limit",
        "card-fraud-limit-as-a-laptop-limit",
        quoted(
            "CLM-402117",
            "How much will you pay for my laptop?",
            "CNT-BEN-05",
            "The most we pay in one event is NZD 2,000",
        ),
        reads=("If your credit, debit or bank cards are lost or stolen",),
    ),
    probe(
        "limit",
        "the-other-plans-figure",
        quoted(
            "CLM-402117", "What's the limit for my laptop?", "CNT-LIM-01", "Premier plan NZD 10,000 per item"
        ),
        reads=("Your schedule shows the Standard plan.", "Standard plan NZD 4,000 per item"),
    ),
    probe(
        "limit",
        "the-other-plans-figure-premier",
        quoted(
            "CLM-402118", "What's the limit for jewellery?", "CNT-LIM-01", "Standard plan NZD 3,000 in total"
        ),
        reads=("Your schedule shows the Premier plan.",),
    ),
    probe(
        "limit",
        "a-daily-rate-without-what-it-pays-for",
        quoted("CLM-204518", "How much do you pay each day?", "MTR-BEN-03", "We pay up to NZD 60 a day"),
        reads=("We pay for a hire car, rental car or other reasonable transport",),
    ),
    probe(
        "limit",
        "a-limit-of-a-section-the-claimant-lacks",
        quoted(
            "CLM-310442",
            "What's the most you pay for a leaking pipe?",
            "HOM-BEN-05",
            "We pay up to NZD 10,000 for each event for hidden gradual damage.",
        ),
        opens_with="Your policy does not include “Gradual damage from hidden leaking pipes”",
        reads=("This optional section applies only when your schedule lists hidden gradual damage.",),
    ),
    probe(
        "limit",
        "the-sum-insured-without-what-it-is",
        quoted(
            "CLM-310442",
            "What is the most you will pay?",
            "HOM-GEN-01",
            "The sum insured is the most we pay for each event",
        ),
        reads=("The sum insured is the amount shown in your schedule.",),
    ),
    # A reference to a clause the claimant's schedule lacks ---------------------------------
    probe(
        "reference",
        "except-as-a-benefit-the-claimant-lacks",
        quoted(
            "CLM-204519",
            "Will you pay for a rental car in New Zealand?",
            "MTR-EXC-04",
            "except as MTR-BEN-03 provides",
        ),
        reads=(called("MTR-BEN-03") + ": your schedule does not list",),
    ),
    probe(
        "reference",
        "except-as-a-benefit-the-claimant-has",
        quoted(
            "CLM-204518",
            "Will you pay for a rental car in New Zealand?",
            "MTR-EXC-04",
            "except as MTR-BEN-03 provides",
        ),
        reads=(called("MTR-BEN-03") + ": your schedule lists",),
    ),
    probe(
        "reference",
        "covered-only-under-portable-valuables",
        quoted(
            "CLM-402117",
            "My phone was stolen at the beach. Is it covered?",
            "CNT-BEN-07",
            "are covered only under CNT-COV-02",
        ),
        reads=(called("CNT-COV-02") + ": your schedule does not list",),
    ),
    probe(
        "reference",
        "belongings-in-a-car-under-another-clause",
        quoted(
            "CLM-402117",
            "My laptop was stolen from my car. Covered?",
            "CNT-EXC-02",
            "Belongings in a car are covered only where another clause covers them",
        ),
        reads=(
            called("CNT-COV-02") + ": your schedule does not list",
            "We do not cover theft from a car that was left unlocked.",
        ),
    ),
    probe(
        "reference",
        "hidden-leaks-under-an-optional-section",
        quoted(
            "CLM-310442",
            "A pipe inside my wall has been leaking. Covered?",
            "HOM-EXC-01",
            "unless your schedule lists hidden gradual damage (HOM-BEN-05)",
        ),
        reads=(called("HOM-BEN-05") + ": your schedule does not list",),
    ),
    probe(
        "reference",
        "cash-with-cards-under-portable-valuables",
        quoted(
            "CLM-402117",
            "Cash was stolen with my cards. Is it covered?",
            "CNT-BEN-05",
            "Cash stolen with your cards is covered only under CNT-COV-01 or CNT-COV-02",
        ),
        reads=(
            called("CNT-COV-02") + ": your schedule does not list",
            "Your policy includes “Theft, burglary",
        ),
    ),
    probe(
        "reference",
        "the-benefit-itself-for-a-claimant-without-it",
        quoted(
            "CLM-204519",
            "Can I get a hire car while mine is repaired?",
            "MTR-BEN-03",
            "We pay for a hire car, rental car or other reasonable transport",
        ),
        opens_with="Your policy does not include “Hire car, rental car and alternative transport",
    ),
    # A rule a paragraph away in the same clause (issue 41) -----------------------------------
    probe(
        "paragraph",
        "storm-without-its-excess",
        quoted(
            "CLM-310442",
            "A storm blew part of my roof off. Am I covered?",
            "HOM-COV-02",
            "We cover storm and flood damage to your home",
        ),
        reads=("The standard excess applies to storm and flood claims.",),
    ),
    probe(
        "paragraph",
        "liability-without-its-limit",
        quoted(
            "CLM-310442",
            "My fence fell on the neighbour's car. Am I covered?",
            "HOM-COV-03",
            "We cover your legal liability, as owner of the home",
        ),
        reads=("We pay up to NZD 2,000,000 for each event for liability",),
    ),
    probe(
        "paragraph",
        "accommodation-without-its-limit",
        quoted(
            "CLM-310442",
            "Will you pay for a motel while the house is fixed?",
            "HOM-BEN-01",
            "we pay the reasonable extra cost of temporary accommodation",
        ),
        reads=("We pay up to NZD 30,000 for temporary accommodation for each event.",),
    ),
    probe(
        "paragraph",
        "demolition-without-its-limit",
        quoted(
            "CLM-310442",
            "Do you pay to clear the rubble after the fire?",
            "HOM-BEN-03",
            "we pay the reasonable cost to demolish damaged parts",
        ),
        reads=("We pay up to NZD 50,000 for each event for demolition and debris removal.",),
    ),
    # An exclusion clause the model never fetched (issue 41) ------------------------------------
    probe(
        "exclusion",
        "burst-pipe-without-the-slow-leak-exclusion",
        quoted(
            "CLM-310442",
            "A pipe in my wall burst. Is it covered?",
            "HOM-COV-01",
            "When a pipe bursts, we also pay to find the burst",
        ),
        # The cover that answers first, then the exclusion that limits it.
        opens_with="Your policy includes “Sudden accidental damage",
        reads=("We do not cover gradual damage from hidden leaking pipes",),
    ),
    probe(
        "exclusion",
        "theft-without-the-unlocked-home-exclusion",
        quoted(
            "CLM-402117",
            "My TV was stolen while I was out. Covered?",
            "CNT-COV-01",
            "This includes burglary, theft, fire",
        ),
        opens_with="Your policy includes “Theft, burglary",
        reads=("an outside door or window was left unlocked or open",),
    ),
    probe(
        "exclusion",
        "hire-car-without-the-overseas-exclusion",
        quoted(
            "CLM-204518",
            "Can I hire a rental car on my holiday in Australia?",
            "MTR-BEN-03",
            "We pay for a hire car, rental car or other reasonable transport",
        ),
        opens_with="Your policy includes “Hire car",
        reads=("We do not cover a rental car you hire overseas.",),
    ),
    probe(
        "exclusion",
        "laptop-without-the-work-laptop-exclusion",
        quoted(
            "CLM-402118",
            "My work laptop was stolen at a cafe. Is it covered?",
            "CNT-COV-02",
            "Portable valuables are phones, laptops, tablets",
        ),
        opens_with="Your policy includes “Portable valuables",
        reads=("such as a work laptop",),
    ),
]
