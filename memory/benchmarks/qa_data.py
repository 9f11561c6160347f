"""The questions of the answer benchmark (`memory.benchmarks.qa`): data only.

Two topic sets. The tuning split is the sample lecture's own topics
(`memory.samples.topics.TOPICS`); the held-out split is a lecture about other subjects
(`HELD_OUT_TOPICS`, history, arts, economics, technology) in another voice. For each
topic: a fact only *said* in the narration (``spoken``), a line added to the slide and
never said (``slide``: the line, its question), and the topic's ordinary question
(``content``), each with the phrases a reader of the answer would accept (any one of
them, compared after `memory.benchmarks.qa.normalize`). Off-topic questions are about
nothing either lecture holds for its split.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["HELD_OUT_OFF_TOPIC", "HELD_OUT_QA", "HELD_OUT_TOPICS", "TUNING_OFF_TOPIC",
           "TUNING_QA", "TopicQA"]

Accept = tuple[str, ...]


@dataclass(frozen=True)
class TopicQA:
    """The questions about one topic (see the module docstring)."""

    spoken: tuple[str, Accept]
    slide: tuple[str, str, Accept]  # (line added to the slide, question, accepted)
    content: tuple[str, Accept]


TUNING_QA: dict[str, TopicQA] = {
    "Photosynthesis": TopicQA(
        ("What does the Calvin cycle fix into sugar?", ("carbon dioxide",)),
        ("Jan Ingenhousz showed in 1779 that plants need light",
         "Who showed that plants need light?", ("ingenhousz",)),
        ("What colours of light does chlorophyll absorb?", ("red and blue",))),
    "The Water Cycle": TopicQA(
        ("How long may a water molecule spend in deep ocean currents?",
         ("thousands of years",)),
        ("About 97 percent of the water on Earth is salty",
         "How much of the water on Earth is salty?", ("97 percent",)),
        ("What happens to water vapour as it rises?",
         ("condenses", "condensation forms clouds", "cools"))),
    "Plate Tectonics": TopicQA(
        ("Which mountains rise where plates collide?", ("himalayas", "himalayan")),
        ("Alfred Wegener proposed continental drift in 1912",
         "Who proposed continental drift?", ("wegener",)),
        ("How fast do the plates move?", ("few centimetres", "fingernails"))),
    "Newton's Laws of Motion": TopicQA(
        ("What are Newton's laws enough to predict?", ("orbits",)),
        ("Newton published the Principia in 1687", "When did Newton publish the Principia?",
         ("1687",)),
        ("How does a rocket move forward?", ("gas backwards", "gas pushes it forward"))),
    "The Structure of the Atom": TopicQA(
        ("How many protons does oxygen have?", ("eight",)),
        ("Ernest Rutherford discovered the nucleus in 1911",
         "Who discovered the nucleus of the atom?", ("rutherford",)),
        ("How many protons does carbon have?", ("six",))),
    "DNA and Genes": TopicQA(
        ("How many genes do human cells contain?", ("twenty thousand",)),
        ("Rosalind Franklin photographed DNA with X-rays",
         "Who photographed DNA with X-rays?", ("franklin",)),
        ("What are the four bases of DNA?", ("adenine", "thymine", "guanine", "cytosine"))),
    "The Solar System": TopicQA(
        ("How long ago did the solar system form?", ("four and a half billion",
                                                      "4.5 billion")),
        ("Jupiter has at least 95 known moons", "How many moons does Jupiter have?",
         ("95",)),
        ("Which planets are rocky?", ("mercury", "inner planets"))),
    "Electric Circuits": TopicQA(
        ("What happens in a series circuit when one bulb breaks?",
         ("switches off all the others", "all the others")),
        ("Georg Ohm published his law in 1827", "When did Georg Ohm publish his law?",
         ("1827",)),
        ("What does Ohm's law say?", ("current times resistance",
                                      "voltage current and resistance"))),
    "The Human Heart": TopicQA(
        ("Where does the right side of the heart send blood?", ("lungs",)),
        ("An adult heart pumps about five litres of blood a minute",
         "How much blood does an adult heart pump in a minute?", ("five litres",)),
        ("How many chambers does the heart have?", ("four chambers",))),
    "Ecosystems and Food Webs": TopicQA(
        ("How much of the energy passes from one level of a food chain to the next?",
         ("ten percent",)),
        ("Coral reefs cover less than one percent of the ocean floor",
         "How much of the ocean floor do coral reefs cover?", ("one percent",)),
        ("What happened when wolves returned to Yellowstone?",
         ("rivers and forests changed", "forests changed"))),
    "Acids and Bases": TopicQA(
        ("What does our stomach use to digest food?", ("hydrochloric",)),
        ("Litmus paper turns red in acid", "What colour does litmus paper turn in acid?",
         ("turns red",)),
        ("What is the pH of lemon juice?", ("below seven",))),
    "Waves and Sound": TopicQA(
        ("Where is there nothing to carry sound?", ("vacuum",)),
        ("Humans hear sounds from about 20 to 20,000 hertz",
         "What range of frequencies can humans hear?", ("20000 hertz", "20 to 20000")),
        ("How fast does sound travel in air?", ("three hundred and forty", "340"))),
    "Cells": TopicQA(
        ("How many cells does the human body contain?", ("thirty trillion",)),
        ("Robert Hooke named the cell in 1665", "Who named the cell?", ("hooke",)),
        ("What do mitochondria do?", ("release energy", "power stations"))),
    "Climate and Weather": TopicQA(
        ("What adds more greenhouse gases to the air?", ("burning coal", "coal oil and gas")),
        ("The last ice age ended about 11,700 years ago", "When did the last ice age end?",
         ("11700 years ago",)),
        ("What do ice cores from Antarctica record?", ("eight hundred thousand",))),
    "Evolution by Natural Selection": TopicQA(
        ("What shaped the beaks of the finches on the Galapagos Islands?",
         ("by their food",)),
        ("On the Origin of Species was published in 1859",
         "When was On the Origin of Species published?", ("1859",)),
        ("Who proposed natural selection?", ("darwin",))),
    "Magnetism": TopicQA(
        ("Why does the Earth behave like a giant magnet?", ("iron core",)),
        ("Neodymium magnets are the strongest permanent magnets",
         "What are the strongest permanent magnets?", ("neodymium",)),
        ("Why does a compass point north?", ("lines up with", "giant magnet"))),
}

TUNING_OFF_TOPIC: tuple[str, ...] = (
    "What is the capital of Australia?",
    "Who painted the Mona Lisa?",
    "What happened during the French Revolution?",
    "Who won the football world cup in 2014?",
    "How do I bake sourdough bread?",
    "What is the price of bitcoin today?",
    "Who wrote Pride and Prejudice?",
    "What is the tallest building in Dubai?",
    "How many players are in a rugby team?",
    "Which programming language should a beginner learn?",
    "When was the Eiffel Tower built?",
    "Who is the president of Brazil?",
)

HELD_OUT_TOPICS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("The Roman Empire",
     ("Rome grew from a city to an empire", "Roads and laws held it together",
      "The western empire fell in 476"),
     ("The Roman Empire began when Augustus became the first emperor.",
      "At its height it stretched from Britain to Egypt.",
      "Roman engineers built more than eighty thousand kilometres of roads.",
      "Latin, the language of Rome, became the root of Italian, French and Spanish.",
      "Aqueducts carried fresh water into the cities from distant hills.",
      "The western half of the empire fell when Germanic tribes took Rome.")),
    ("The Printing Press",
     ("Movable type made books cheap", "Ideas spread across Europe",
      "Literacy rose quickly"),
     ("Johannes Gutenberg built his printing press in Mainz around 1450.",
      "He cast each letter as a small metal block that could be used again.",
      "His first great book was a Bible of about thirteen hundred pages.",
      "Before the press, monks copied books by hand over many months.",
      "Within fifty years printers were working in more than two hundred towns.",
      "Cheap pamphlets helped new ideas in science and religion travel fast.")),
    ("The Industrial Revolution",
     ("Machines replaced hand work", "Steam powered the factories",
      "Cities grew around the mills"),
     ("The Industrial Revolution started in Britain in the eighteenth century.",
      "James Watt improved the steam engine so that it wasted far less coal.",
      "Cotton mills in Manchester spun thread with rows of machines.",
      "Railways let goods and people cross the country in hours instead of days.",
      "Many children worked long shifts in factories and mines.",
      "Workers formed trade unions to demand shorter hours and safer work.")),
    ("Ancient Egypt",
     ("The Nile made farming possible", "Pharaohs ruled as kings",
      "Pyramids were royal tombs"),
     ("Ancient Egypt grew along the banks of the river Nile.",
      "Every summer the river flooded and left rich black soil on the fields.",
      "The Great Pyramid of Giza was built for the pharaoh Khufu.",
      "Scribes wrote in hieroglyphs on sheets made from papyrus reeds.",
      "The Rosetta Stone finally let scholars read hieroglyphs again.",
      "Egyptians preserved the bodies of the dead as mummies for the afterlife.")),
    ("The Silk Road",
     ("A web of trade routes", "Silk, spices and paper moved west",
      "Ideas travelled with the traders"),
     ("The Silk Road linked China with the Mediterranean for more than a thousand years.",
      "Chinese silk was so valued in Rome that laws tried to limit its sale.",
      "Camel caravans crossed the deserts of central Asia in long stages.",
      "Samarkand grew rich as a meeting place of merchants.",
      "Paper making reached the Islamic world along these routes.",
      "Marco Polo described his journey to the court of Kublai Khan.")),
    ("The Telephone",
     ("Sound turned into electric signals", "Exchanges connected callers",
      "Phones went mobile"),
     ("Alexander Graham Bell patented the telephone in 1876.",
      "The first call was made to his assistant, Thomas Watson.",
      "A thin membrane turned the voice into a changing electric current.",
      "Operators at exchanges connected calls by plugging in cables.",
      "The first handheld mobile phone call was made in New York in 1973.",
      "Today most calls travel as digital data through fibre optic cables.")),
    ("Impressionist Painting",
     ("Painting light and movement", "Quick visible brushstrokes",
      "Scenes of everyday life"),
     ("Impressionism began in Paris in the eighteen seventies.",
      "The name came from a painting by Claude Monet called Impression, Sunrise.",
      "The painters worked outdoors to catch the changing light.",
      "Edgar Degas painted ballet dancers in rehearsal.",
      "Critics at first mocked the paintings as unfinished sketches.",
      "Monet painted the same haystacks again and again at different hours.")),
    ("Classical Music",
     ("Symphonies, concertos and sonatas", "Written for orchestras",
      "Vienna was a musical capital"),
     ("Wolfgang Amadeus Mozart wrote his first symphony at the age of eight.",
      "A symphony usually has four movements with different speeds.",
      "Ludwig van Beethoven kept composing after he lost his hearing.",
      "His ninth symphony ends with a choir singing the Ode to Joy.",
      "Johann Sebastian Bach wrote music for the organ and the church.",
      "A modern orchestra can have more than eighty players.")),
    ("The Olympic Games",
     ("Games began in ancient Greece", "Revived in modern times",
      "Summer and winter games"),
     ("The ancient Olympic Games were held at Olympia to honour Zeus.",
      "Winners received a crown made of olive leaves.",
      "Pierre de Coubertin revived the games in Athens in 1896.",
      "The five rings stand for the continents taking part.",
      "The marathon remembers a runner who carried news of a battle.",
      "The first winter games were held in Chamonix in France.")),
    ("Supply and Demand",
     ("Prices balance buyers and sellers", "Scarcity raises prices",
      "Markets find an equilibrium"),
     ("Supply is how much of a good sellers offer at each price.",
      "Demand is how much buyers want to purchase at each price.",
      "When a harvest fails, the price of wheat usually rises.",
      "Adam Smith called the working of markets an invisible hand.",
      "Where supply meets demand the market finds its equilibrium price.",
      "Taxes and subsidies shift these curves and change what people buy.")),
    ("The Internet",
     ("Networks of networks", "Packets travel separately",
      "The web runs on top of it"),
     ("The internet grew out of a research network called ARPANET.",
      "Messages are cut into small packets that travel by different routes.",
      "Tim Berners-Lee invented the World Wide Web at CERN in 1989.",
      "Every device on the network has an address so that data can find it.",
      "Undersea cables carry most of the traffic between continents.",
      "Email was one of the first popular uses of the network.")),
    ("Vaccines",
     ("Training the immune system", "Safe practice against disease",
      "Herd immunity protects others"),
     ("Edward Jenner made the first vaccine against smallpox in 1796.",
      "He used material from cowpox, a mild disease of milkmaids.",
      "A vaccine shows the immune system a harmless piece of a germ.",
      "The body then remembers how to make the right antibodies.",
      "Smallpox was declared wiped out across the world in 1980.",
      "When most people are vaccinated, a disease can no longer spread easily.")),
    ("William Shakespeare",
     ("Plays, poems and sonnets", "The Globe Theatre in London",
      "Words still used today"),
     ("William Shakespeare was born in Stratford upon Avon in 1564.",
      "He wrote about thirty seven plays and over one hundred and fifty sonnets.",
      "His company performed at the Globe Theatre on the river Thames.",
      "Romeo and Juliet tells of two young lovers from feuding families.",
      "Hamlet asks whether it is better to be or not to be.",
      "Many everyday phrases, such as breaking the ice, first appeared in his plays.")),
    ("The Moon Landing",
     ("Apollo eleven reached the Moon", "Two astronauts walked on it",
      "Six missions landed in all"),
     ("Apollo eleven landed on the Moon in July 1969.",
      "Neil Armstrong was the first person to step onto the surface.",
      "Buzz Aldrin joined him while Michael Collins stayed in orbit.",
      "The lunar module was called the Eagle.",
      "The astronauts brought back about twenty one kilograms of moon rock.",
      "Their footprints are still there because the Moon has no wind.")),
    ("Honeybees",
     ("Colonies of thousands", "Bees pollinate crops",
      "Honey is stored food"),
     ("A honeybee colony has one queen and thousands of workers.",
      "Worker bees tell each other where flowers are with a waggle dance.",
      "The queen can lay about two thousand eggs in a single day.",
      "Bees turn nectar into honey by drying it in wax cells.",
      "About a third of the food we eat depends on pollination by insects.",
      "Male bees, called drones, do not collect food at all.")),
    ("The Great Wall of China",
     ("Built over many dynasties", "A defence against raids",
      "Watchtowers sent signals"),
     ("The Great Wall was built and rebuilt over about two thousand years.",
      "Most of the wall that stands today was built during the Ming dynasty.",
      "Soldiers in the watchtowers sent warnings with smoke and fire.",
      "The wall crosses mountains, deserts and grasslands in northern China.",
      "Its many branches add up to more than twenty thousand kilometres.",
      "Despite a popular myth, it cannot be seen from space with the naked eye.")),
)

HELD_OUT_QA: dict[str, TopicQA] = {
    "The Roman Empire": TopicQA(
        ("Who was the first Roman emperor?", ("augustus",)),
        ("Julius Caesar was murdered on the Ides of March",
         "When was Julius Caesar murdered?", ("ides of march",)),
        ("How far did the Roman Empire stretch?", ("britain to egypt",))),
    "The Printing Press": TopicQA(
        ("Where did Gutenberg build his printing press?", ("mainz",)),
        ("William Caxton printed the first book in England",
         "Who printed the first book in England?", ("caxton",)),
        ("How did books get copied before the printing press?",
         ("copied books by hand", "by hand"))),
    "The Industrial Revolution": TopicQA(
        ("Who improved the steam engine?", ("watt",)),
        ("The Rocket locomotive reached 29 miles per hour",
         "How fast was the Rocket locomotive?", ("29 miles per hour",)),
        ("Where did the Industrial Revolution start?", ("britain",))),
    "Ancient Egypt": TopicQA(
        ("Who was the Great Pyramid built for?", ("khufu",)),
        ("Tutankhamun's tomb was found in 1922", "When was the tomb of Tutankhamun found?",
         ("1922",)),
        ("What did scribes write on?", ("papyrus",))),
    "The Silk Road": TopicQA(
        ("Which city grew rich as a meeting place of merchants?", ("samarkand",)),
        ("The routes covered about 6,400 kilometres", "How long were the Silk Road routes?",
         ("6400 kilometres",)),
        ("Who described a journey to the court of Kublai Khan?", ("marco polo",))),
    "The Telephone": TopicQA(
        ("Who did Bell call first?", ("watson",)),
        ("Emile Berliner invented a better microphone in 1877",
         "Who invented a better microphone in 1877?", ("berliner",)),
        ("When was the first handheld mobile phone call made?", ("1973",))),
    "Impressionist Painting": TopicQA(
        ("What did Edgar Degas paint?", ("ballet dancers", "dancers")),
        ("Berthe Morisot showed her work at the first exhibition",
         "Which woman showed her work at the first Impressionist exhibition?",
         ("morisot",)),
        ("Where did the name Impressionism come from?", ("impression sunrise",))),
    "Classical Music": TopicQA(
        ("At what age did Mozart write his first symphony?", ("eight",)),
        ("Vivaldi wrote The Four Seasons", "Who wrote The Four Seasons?", ("vivaldi",)),
        ("How many movements does a symphony usually have?", ("four movements",))),
    "The Olympic Games": TopicQA(
        ("What did winners of the ancient games receive?", ("olive",)),
        ("Women first competed at the Paris games of 1900",
         "When did women first compete at the Olympic Games?", ("1900",)),
        ("Who revived the Olympic Games?", ("coubertin",))),
    "Supply and Demand": TopicQA(
        ("What happens to the price of wheat when a harvest fails?", ("rises",)),
        ("Alfred Marshall drew the first supply and demand curves",
         "Who drew the first supply and demand curves?", ("marshall",)),
        ("What did Adam Smith call the working of markets?", ("invisible hand",))),
    "The Internet": TopicQA(
        ("Who invented the World Wide Web?", ("berners lee", "berners",)),
        ("The first website went online in 1991", "When did the first website go online?",
         ("1991",)),
        ("How do messages travel across the internet?", ("packets",))),
    "Vaccines": TopicQA(
        ("What did Edward Jenner use to make his vaccine?", ("cowpox",)),
        ("Louis Pasteur made a rabies vaccine in 1885", "Who made a rabies vaccine?",
         ("pasteur",)),
        ("When was smallpox declared wiped out?", ("1980",))),
    "William Shakespeare": TopicQA(
        ("Where was Shakespeare born?", ("stratford",)),
        ("The Globe burned down in 1613 during a play",
         "When did the Globe Theatre burn down?", ("1613",)),
        ("Where did Shakespeare's company perform?", ("globe",))),
    "The Moon Landing": TopicQA(
        ("What was the lunar module called?", ("eagle",)),
        ("The last moon landing was Apollo 17 in 1972",
         "When was the last moon landing?", ("1972",)),
        ("Who was the first person to step onto the Moon?", ("armstrong",))),
    "Honeybees": TopicQA(
        ("How many eggs can the queen lay in a day?", ("two thousand",)),
        ("A worker bee makes about a twelfth of a teaspoon of honey",
         "How much honey does a worker bee make in its life?", ("twelfth of a teaspoon",)),
        ("How do worker bees tell each other where flowers are?", ("waggle dance",))),
    "The Great Wall of China": TopicQA(
        ("How did soldiers in the watchtowers send warnings?", ("smoke and fire", "smoke")),
        ("The wall was listed as a World Heritage Site in 1987",
         "When was the Great Wall listed as a World Heritage Site?", ("1987",)),
        ("Which dynasty built most of the wall that stands today?", ("ming",))),
}

HELD_OUT_OFF_TOPIC: tuple[str, ...] = (
    "What is the capital of Canada?",
    "How do I fix a flat bicycle tyre?",
    "Who invented the light bulb?",
    "What is the chemical symbol for gold?",
    "How many legs does a spider have?",
    "What is the longest river in Africa?",
    "Who wrote the Harry Potter books?",
    "What time does the train to Paris leave?",
    "How do volcanoes form?",
    "What is photosynthesis?",
    "How do I make pancakes?",
    "What is the speed of light?",
)
