"""The fourth dev split of the answer benchmark (`memory.benchmarks.qa`): data only.

A sixth topic set in the held-out split's fields (history, arts, economics, technology)
but on other subjects, disjoint from every other split, in Piper's voice with its own
seed. Written blind after the dev3 rules, before any run on it, with questions worded
as a person would ask them rather than as the narration says it, so that its first
figures are those of material nothing was tuned on. Same layout as
`memory.benchmarks.qa_data`.
"""

from __future__ import annotations

from memory.benchmarks.qa_data import TopicQA

__all__ = ["DEV4_OFF_TOPIC", "DEV4_QA", "DEV4_TOPICS"]

DEV4_TOPICS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("The California Gold Rush",
     ("Gold at Sutter's Mill", "The forty-niners", "A new state"),
     ("In January 1848 James Marshall found flakes of gold at Sutter's Mill in California.",
      "The news drew around three hundred thousand people to the west.",
      "They were called forty-niners, after the year most of them arrived.",
      ("Few miners grew rich, and the merchants who sold them shovels and food often did "
       "better."),
      "Levi Strauss began selling sturdy work trousers to the miners.",
      "California became a state of the union in 1850.")),
    ("The Telegraph",
     ("Messages by wire", "Dots and dashes", "Cables under the ocean"),
     (("Samuel Morse sent his first long distance message from Washington to Baltimore in "
       "1844."),
      "The message read: What hath God wrought.",
      "Morse code turns each letter into a pattern of short and long signals.",
      "In 1866 a cable across the Atlantic finally carried messages between Europe and America.",
      "A message that once took ten days by ship now arrived in minutes.",
      "Railways used the telegraph to keep trains on the same line from colliding.")),
    ("The Globe Theatre",
     ("Shakespeare's wooden O", "Standing in the yard", "Rebuilt by the Thames"),
     ("The Globe was built in 1599 on the south bank of the Thames in London.",
      "Its timbers came from an older theatre that the actors took apart overnight.",
      "Poorer visitors stood in the open yard and were called groundlings.",
      ("A cannon fired during a play about Henry the Eighth set the thatched roof alight in "
       "1613."),
      "The Puritans closed all the theatres in 1642.",
      "A copy of the Globe opened near the original site in 1997.")),
    ("Paper Money",
     ("From coins to notes", "Invented in China", "Backed by trust"),
     (("Merchants in China began carrying paper receipts instead of heavy strings of coins "
       "over a thousand years ago."),
      "The Song dynasty issued the first paper money printed by a government.",
      "Marco Polo was amazed that the emperor's paper was accepted as payment.",
      "When rulers printed too much, the notes lost their value.",
      "For a long time banknotes could be swapped for a fixed amount of gold or silver.",
      "Today money is backed only by trust in the government that issues it.")),
    ("The Hanseatic League",
     ("A league of merchant towns", "Ships on the Baltic", "Trading posts abroad"),
     ("The Hanseatic League was an alliance of merchant towns around the Baltic and North Seas.",
      "It grew in the thirteenth century to protect traders from pirates and local lords.",
      "Its ships, called cogs, carried grain, timber, furs and salted herring.",
      "The league ran trading posts as far away as London, Bergen and Novgorod.",
      "When Denmark tried to control the trade, the league went to war and won in 1370.",
      "Its power faded as the Atlantic trade routes grew more important.")),
    ("The Panama Canal",
     ("Joining two oceans", "Locks lift the ships", "Fighting disease"),
     ("A French company led by Ferdinand de Lesseps began digging in 1881 and failed.",
      "Yellow fever and malaria killed thousands of the workers.",
      ("Doctors later showed that mosquitoes spread the diseases, and draining the swamps "
       "saved lives."),
      "The United States finished the canal and opened it in 1914.",
      "Locks raise each ship twenty six metres to an artificial lake and lower it again.",
      "The canal saves ships a voyage of thousands of kilometres around South America.")),
    ("Opera",
     ("Drama in song", "Born in Italy", "Arias and recitatives"),
     ("Opera began in Florence around 1600, when musicians tried to revive Greek drama.",
      "Claudio Monteverdi wrote Orfeo, one of the first great operas, in 1607.",
      "In an aria a character pauses to sing about their feelings.",
      "Singers were trained to fill a large hall without any microphone.",
      "Mozart wrote The Magic Flute in German for an ordinary audience.",
      "Verdi's operas became songs of Italian unity in the nineteenth century.")),
    ("Tulip Mania",
     ("Flowers from Turkey", "Prices soar", "The crash of 1637"),
     ("Tulips reached the Netherlands from the Ottoman Empire in the sixteenth century.",
      "Bulbs with striped petals were the most prized, though the stripes came from a virus.",
      "Traders bought and sold bulbs that were still in the ground, using contracts.",
      "At the peak, a rare bulb cost more than a house in Amsterdam.",
      "In February 1637 buyers suddenly stopped appearing and prices collapsed.",
      "Historians still argue about how much real damage the crash did.")),
    ("The Transistor",
     ("A switch without moving parts", "Bell Labs, 1947", "Billions on a chip"),
     (("John Bardeen, Walter Brattain and William Shockley built the first transistor at "
       "Bell Labs in 1947."),
      "It replaced the vacuum tube, which was large, hot and often burned out.",
      "A transistor can amplify a signal or switch it on and off.",
      "Most transistors are made of silicon, which gave Silicon Valley its name.",
      ("Gordon Moore predicted that the number of transistors on a chip would double every "
       "two years."),
      "A modern phone chip holds billions of them.")),
    ("The Phonograph",
     ("Sound on a cylinder", "Records and gramophones", "Music at home"),
     ("Thomas Edison invented the phonograph in 1877 at his laboratory in Menlo Park.",
      "It recorded sound by cutting grooves into tinfoil wrapped around a cylinder.",
      "The first words he recorded were the rhyme Mary had a little lamb.",
      "Emile Berliner replaced the cylinder with a flat disc that was easier to copy.",
      "Records turning at seventy eight revolutions a minute became the standard for decades.",
      "For the first time, people could hear famous singers in their own homes.")),
    ("The Channel Tunnel",
     ("Under the sea", "Three tunnels", "Paris to London"),
     ("The Channel Tunnel links Folkestone in England with Coquelles near Calais in France.",
      "Digging began from both sides in 1988, and the two teams met in 1990.",
      "It is made of two rail tunnels and a smaller service tunnel between them.",
      "Giant boring machines cut through a layer of chalk marl beneath the sea bed.",
      "At about fifty kilometres, it has the longest undersea section of any tunnel.",
      ("High speed trains now carry passengers from London to Paris in about two and a half "
       "hours."))),
    ("The Orient Express",
     ("Paris to Constantinople", "Luxury on rails", "A story of crime"),
     ("The Orient Express first ran in 1883, from Paris towards Constantinople.",
      "Georges Nagelmackers founded the company that built its sleeping cars.",
      "Passengers dined on fine food in carriages panelled with polished wood.",
      "Agatha Christie set her famous murder mystery aboard the train.",
      "The route was broken by both world wars and slowly lost passengers to aeroplanes.",
      "The last through train to Istanbul ran in 1977.")),
    ("Ballet",
     ("Born at royal courts", "Dancing on pointe", "The Russian ballet"),
     ("Ballet began at the courts of Renaissance Italy and grew up in France.",
      "King Louis the Fourteenth loved to dance and founded a royal dance academy in Paris.",
      ("Dancing on the tips of the toes, called pointe work, became popular in the "
       "nineteenth century."),
      "Tchaikovsky wrote the music for Swan Lake and The Nutcracker.",
      "Sergei Diaghilev brought Russian dancers to Paris in 1909.",
      "A classical dancer may train for ten years before joining a company.")),
    ("The Typewriter",
     ("Writing by machine", "The QWERTY keyboard", "Offices change"),
     (("Christopher Sholes built one of the first practical typewriters in the United States "
       "in 1868."),
      "The letters were arranged in the QWERTY layout so that the metal arms would not jam.",
      "The gun maker Remington began making typewriters in 1874.",
      "Typewriters opened office jobs to thousands of women.",
      ("Mark Twain is said to have been the first author to hand a typed manuscript to a "
       "publisher."),
      "Electric typewriters were later replaced by computers and word processors.")),
    ("The Violin",
     ("Four strings and a bow", "Cremona's workshops", "Wood and varnish"),
     ("The violin took its modern shape in northern Italy in the sixteenth century.",
      "Antonio Stradivari made more than a thousand instruments in the town of Cremona.",
      ("Its four strings are tuned a fifth apart and played with a bow strung with "
       "horsehair."),
      "The top is usually carved from spruce and the back from maple.",
      "Players rub rosin on the bow so that it grips the strings.",
      "Some of his violins have sold for more than ten million dollars.")),
    ("Insurance",
     ("Sharing the risk", "Ships and their cargoes", "Fire and ships"),
     ("Insurance lets many people share the cost of a loss that would ruin one of them.",
      "Ship owners in London met at Edward Lloyd's coffee house to insure their cargoes.",
      "After the Great Fire of London in 1666, the first fire insurance companies were founded.",
      "Each company put its own metal mark on the buildings it covered.",
      "Actuaries use tables of past events to decide what each customer should pay.",
      "Today the market that grew from that coffee house is called Lloyd's of London.")),
)

DEV4_QA: dict[str, TopicQA] = {
    "The California Gold Rush": TopicQA(
        ("Who found the gold at Sutter's Mill?", ("james marshall", "marshall")),
        ("San Francisco grew from 1000 people to 25000 in two years",
         "How big did San Francisco grow?", ("25000",)),
        ("Why were the miners called forty-niners?", ("after the year",))),
    "The Telegraph": TopicQA(
        ("What did Morse's first message say?", ("what hath god wrought",)),
        ("Telegrams were charged by the word",
         "How were telegrams charged?", ("by the word",)),
        ("When did the first cable across the Atlantic work?", ("1866",))),
    "The Globe Theatre": TopicQA(
        ("What burned down the first Globe?", ("cannon",)),
        ("A place to stand in the yard cost one penny",
         "How much did it cost to stand in the yard?", ("one penny",)),
        ("What were the people standing in the yard called?", ("groundlings",))),
    "Paper Money": TopicQA(
        ("Which dynasty printed the first government paper money?", ("song dynasty",)),
        ("A Swedish bank printed Europe's first banknotes in 1661",
         "When were Europe's first banknotes printed?", ("1661",)),
        ("What is money backed by today?", ("trust",))),
    "The Hanseatic League": TopicQA(
        ("What were the Hanseatic ships called?", ("cogs",)),
        ("Lubeck was the leading city of the league",
         "Which city led the Hanseatic League?", ("lubeck",)),
        ("What goods did the Hanseatic ships carry?", ("grain", "timber", "herring"))),
    "The Panama Canal": TopicQA(
        ("What spread the diseases that killed the canal workers?", ("mosquitoes",)),
        ("About 14000 ships pass through the canal each year",
         "How many ships use the Panama Canal each year?", ("14000",)),
        ("When did the Panama Canal open?", ("1914",))),
    "Opera": TopicQA(
        ("Who wrote Orfeo?", ("monteverdi",)),
        ("Wagner's Ring cycle lasts about fifteen hours",
         "How long is Wagner's Ring cycle?", ("fifteen hours",)),
        ("Where was opera born?", ("florence",))),
    "Tulip Mania": TopicQA(
        ("What caused the stripes on the most prized tulips?", ("virus",)),
        ("A single Semper Augustus bulb was offered for 10000 guilders",
         "What was a Semper Augustus bulb offered for?", ("10000 guilders",)),
        ("When did tulip prices collapse?", ("1637",))),
    "The Transistor": TopicQA(
        ("What did the transistor replace?", ("vacuum tube",)),
        ("The first transistor radio went on sale in 1954",
         "When did the first transistor radio go on sale?", ("1954",)),
        ("What did Gordon Moore predict?", ("double every two years",))),
    "The Phonograph": TopicQA(
        ("What were the first words Edison recorded?", ("mary had a little lamb",)),
        ("Edison hoped the machine would be used for dictation in offices",
         "What did Edison expect the phonograph to be used for?", ("dictation",)),
        ("Who replaced the cylinder with a flat disc?", ("berliner",))),
    "The Channel Tunnel": TopicQA(
        ("What rock did the boring machines cut through?", ("chalk marl", "chalk")),
        ("Queen Elizabeth and President Mitterrand opened the tunnel in 1994",
         "Who opened the Channel Tunnel?", ("mitterrand", "queen elizabeth")),
        ("How long does the train take from London to Paris?", ("two and a half hours",))),
    "The Orient Express": TopicQA(
        ("Who founded the company behind the Orient Express?", ("nagelmackers",)),
        ("The trip from Paris took about eighty hours",
         "How long did the trip from Paris take?", ("eighty hours",)),
        ("Which writer set a murder mystery on the train?", ("christie",))),
    "Ballet": TopicQA(
        ("Which king founded a dance academy?", ("louis",)),
        ("Pointe shoes are stiffened with layers of glue and fabric",
         "What are pointe shoes stiffened with?", ("glue",)),
        ("Who wrote the music for Swan Lake?", ("tchaikovsky",))),
    "The Typewriter": TopicQA(
        ("Why were the letters arranged in the QWERTY layout?", ("not jam",)),
        ("A skilled typist could type about eighty words a minute",
         "How fast could a skilled typist type?", ("eighty words",)),
        ("Which gun maker began making typewriters?", ("remington",))),
    "The Violin": TopicQA(
        ("What is a violin bow strung with?", ("horsehair",)),
        ("Niccolo Paganini played so fast that people said he had sold his soul",
         "Which violinist was said to have sold his soul?", ("paganini",)),
        ("Where did Stradivari make his instruments?", ("cremona",))),
    "Insurance": TopicQA(
        ("Where did London ship owners meet to insure their cargoes?",
         ("coffee house", "lloyd")),
        ("A premium is the sum a customer pays for cover",
         "What is a premium?", ("sum a customer pays",)),
        ("When were the first fire insurance companies founded?", ("1666", "great fire"))),
}

DEV4_OFF_TOPIC: tuple[str, ...] = (
    "Who painted the Mona Lisa?",
    "What is the boiling point of water?",
    "How many players are in a football team?",
    "Who wrote Pride and Prejudice?",
    "What is the largest planet in the solar system?",
    "When did the Berlin Wall fall?",
    "What language is spoken in Brazil?",
    "How tall is the Eiffel Tower?",
    "Who discovered gravity?",
    "What is the speed of sound?",
    "Which country has the most people?",
    "How do vaccines work?",
)
