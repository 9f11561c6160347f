"""The fifth dev split of the answer benchmark (`memory.benchmarks.qa`): data only.

A seventh topic set in the held-out split's fields (history, arts, economics,
technology) on other subjects, disjoint from every other split, in Piper's voice with
its own seed. Written blind after dev4's rules, before any run on it, with more of the
ordinary "how" and "why" questions a student asks. Same layout as
`memory.benchmarks.qa_data`.
"""

from __future__ import annotations

from memory.benchmarks.qa_data import TopicQA

__all__ = ["DEV5_OFF_TOPIC", "DEV5_QA", "DEV5_TOPICS"]

DEV5_TOPICS: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = (
    ("The Rosetta Stone",
     ("One decree, three scripts", "Found by soldiers", "Hieroglyphs decoded"),
     (("The Rosetta Stone carries the same decree written in hieroglyphs, demotic script "
       "and ancient Greek."),
      "French soldiers found it in 1799 while rebuilding a fort near the town of Rashid.",
      "Because scholars could read the Greek, the stone became a key to the other two scripts.",
      "Jean-Francois Champollion announced in 1822 that he had deciphered the hieroglyphs.",
      "He showed that the signs stood for sounds as well as for ideas.",
      "The stone has been kept in the British Museum since 1802.")),
    ("The Bayeux Tapestry",
     ("An embroidered story", "The Norman Conquest", "Seventy metres of linen"),
     ("The Bayeux Tapestry tells the story of the Norman conquest of England in 1066.",
      "It is not really a tapestry but an embroidery, stitched in wool on linen.",
      ("It was probably made in England for Bishop Odo, the half brother of William the "
       "Conqueror."),
      "One famous scene seems to show King Harold killed by an arrow in the eye.",
      "Halley's comet appears in the sky above the crowd as a bad omen.",
      "The last part of the cloth is missing, so we do not know how the story ended.")),
    ("Porcelain",
     ("White gold from China", "The secret recipe", "Meissen copies"),
     (("Porcelain was first made in China, where potters fired a white clay called kaolin "
       "at very high heat."),
      "The result was thin, hard and almost glassy, and light could shine through it.",
      "European traders paid so much for it that it was called white gold.",
      "For centuries nobody in Europe could work out how it was made.",
      "In 1708 the alchemist Johann Bottger found the recipe in the German state of Saxony.",
      "The Meissen factory near Dresden then began selling European porcelain.")),
    ("The Phoenicians",
     ("Traders of the Mediterranean", "Purple dye", "An alphabet of sounds"),
     (("The Phoenicians lived in cities such as Tyre and Sidon on the coast of what is now "
       "Lebanon."),
      ("Their ships sailed across the whole Mediterranean, and they founded Carthage in "
       "North Africa."),
      "They became rich selling a purple dye made from crushed sea snails.",
      "The dye was so costly that purple became the colour of kings.",
      "Their alphabet used a letter for each sound instead of a picture for each word.",
      "The Greeks borrowed it, and our own letters descend from it.")),
    ("Roman Mosaics",
     ("Pictures from small stones", "Floors of rich houses", "Pompeii's dog"),
     (("A mosaic is a picture made of thousands of small cubes of stone or glass called "
       "tesserae."),
      "Wealthy Romans laid mosaics on the floors of their dining rooms and baths.",
      "The cubes were pressed into wet mortar one by one.",
      "A mosaic at Pompeii shows a chained dog with the words beware of the dog.",
      "Later, Christian churches covered their walls and domes with gold glass mosaics.",
      "The churches of Ravenna in Italy still hold some of the finest.")),
    ("The Stirrup",
     ("A small invention", "Riders stay in the saddle", "Knights and lances"),
     ("The stirrup is a loop that hangs from each side of the saddle to hold the rider's foot.",
      "Early stirrups appeared in China around the fourth century.",
      ("With feet braced, a rider could swing a sword or hold a lance without falling "
       "off."),
      "Some historians argue that the stirrup made the armoured knight possible.",
      "Others point out that cavalry fought well long before stirrups existed.",
      "The Avars are often credited with bringing stirrups to Europe.")),
    ("Windmills",
     ("Power from the wind", "Grinding grain", "Draining the Netherlands"),
     ("The first windmills, in Persia, turned on a vertical axis to grind grain.",
      ("In Europe, post mills appeared in the twelfth century and could be turned to face "
       "the wind."),
      ("Dutch windmills pumped water out of low land to create new farmland called "
       "polders."),
      "A miller adjusted the canvas on the sails to control the speed.",
      ("Steam engines and electric pumps replaced most windmills in the nineteenth "
       "century."),
      "Modern wind turbines use the same idea to make electricity.")),
    ("Double Entry Bookkeeping",
     ("Every sum written twice", "Debits and credits", "Merchants of Venice"),
     (("In double entry bookkeeping, every transaction is written in two accounts, once as "
       "a debit and once as a credit."),
      "If the two columns do not balance, the merchant knows a mistake has been made.",
      "Merchants in Italian cities were using the method by the fourteenth century.",
      "In 1494 the friar Luca Pacioli described it in a book on mathematics.",
      "His book was printed in Venice and spread the method across Europe.",
      "Accountants still use the same principle today.")),
    ("Refrigeration",
     ("Keeping food cold", "Ice from frozen lakes", "The electric fridge"),
     (("Before machines, people cut ice from frozen lakes in winter and stored it in ice "
       "houses packed with straw."),
      "Frederic Tudor became rich shipping New England ice as far as India.",
      ("A refrigerator works by letting a liquid evaporate, which draws heat out of the "
       "cabinet."),
      "Early machines used dangerous gases such as ammonia.",
      "Electric refrigerators became common in American homes in the 1930s.",
      ("Cold storage meant that meat and fruit could travel across the world without "
       "spoiling."))),
    ("The Elevator",
     ("Going up safely", "A safety brake", "Taller buildings"),
     (("Hoists for lifting goods had existed for centuries, but a snapped rope meant a "
       "deadly fall."),
      ("In 1854 Elisha Otis stood on a raised platform and had the rope cut in front of a "
       "crowd."),
      "His safety brake caught the platform and he was unharmed.",
      "The first passenger elevator was installed in a New York store in 1857.",
      "Safe elevators made it practical to build skyscrapers.",
      ("Modern elevators in the tallest towers travel faster than sixty kilometres an "
       "hour."))),
    ("The Barcode",
     ("Stripes that carry numbers", "Read by a beam of light", "The first scan"),
     ("A barcode stores a number in the widths of black bars and white spaces.",
      ("Norman Woodland first drew the idea in the sand of a Miami beach, inspired by "
       "Morse code."),
      "Scanners read the bars with a beam of light and a sensor.",
      ("The first product scanned in a shop was a pack of chewing gum in Ohio in "
       "1974."),
      "Barcodes made checkout faster and let shops count their stock automatically.",
      "Square QR codes can hold far more information than the old stripes.")),
    ("Radar",
     ("Radio echoes", "Watching the skies", "From war to weather"),
     ("Radar sends out pulses of radio waves and listens for the echoes that bounce back.",
      "The time an echo takes to return tells how far away the object is.",
      "In the 1930s Robert Watson-Watt showed that radio waves could detect aircraft.",
      "A chain of radar stations warned Britain of incoming planes during the war.",
      "The cavity magnetron made radar small enough to fit inside an aircraft.",
      "Today the same technology tracks storms and guides ships through fog.")),
    ("The Incas",
     ("An empire in the Andes", "Roads and rope bridges", "Records without writing"),
     ("The Inca empire stretched along the Andes mountains from Ecuador to Chile.",
      "Its capital was Cusco, high in the mountains of Peru.",
      ("Runners carried messages along thousands of kilometres of stone roads and rope "
       "bridges."),
      "The Incas kept records on knotted strings called quipu.",
      "They grew potatoes on terraces cut into the steep hillsides.",
      "In 1532 Francisco Pizarro captured the emperor Atahualpa.")),
    ("The Hundred Years War",
     ("England against France", "Longbows at Agincourt", "Joan of Arc"),
     ("The Hundred Years War between England and France actually lasted from 1337 to 1453.",
      "It began when the English king Edward the Third claimed the French throne.",
      ("At Agincourt in 1415, English archers with longbows defeated a much larger French "
       "army."),
      ("Joan of Arc, a peasant girl, led the French to lift the siege of Orleans in "
       "1429."),
      "She was captured and burned at the stake two years later.",
      "By the end of the war England had lost almost all its lands in France.")),
    ("The Dead Sea Scrolls",
     ("Jars in desert caves", "The oldest Bible texts", "Who wrote them?"),
     (("In 1947 a young shepherd found clay jars holding old scrolls in a cave near the "
       "Dead Sea."),
      ("Over the next ten years, fragments of nearly a thousand manuscripts were found in "
       "eleven caves."),
      "They include the oldest known copies of books of the Hebrew Bible.",
      "Most were written on animal skin, and a few on papyrus or copper.",
      "Many scholars link them to a community that lived at Qumran.",
      "Today they are kept in a museum in Jerusalem called the Shrine of the Book.")),
    ("The Sewing Machine",
     ("Stitching by machine", "Singer's improvements", "Clothes for everyone"),
     ("Sewing by hand was slow, and a shirt could take a whole day to make.",
      "Elias Howe patented a sewing machine with a needle that had its eye near the point.",
      "Isaac Singer added a foot pedal and a needle that moved up and down.",
      "Singer sold machines on instalments, so families could pay a little each month.",
      "Factories full of sewing machines made cheap ready made clothes possible.",
      "Howe later won a court case and earned money from every machine Singer sold.")),
)

DEV5_QA: dict[str, TopicQA] = {
    "The Rosetta Stone": TopicQA(
        ("Who deciphered the hieroglyphs?", ("champollion",)),
        ("The stone weighs about 760 kilograms",
         "How heavy is the Rosetta Stone?", ("760 kilograms",)),
        ("Why was the stone the key to reading hieroglyphs?", ("could read the greek",))),
    "The Bayeux Tapestry": TopicQA(
        ("Which comet appears on the tapestry?", ("halley's", "halleys")),
        ("The tapestry shows more than 600 people and 200 horses",
         "How many horses are on the tapestry?", ("200",)),
        ("What is the tapestry made of?", ("wool on linen",))),
    "Porcelain": TopicQA(
        ("Who found out how to make porcelain in Europe?", ("bottger",)),
        ("Blue and white pieces were painted with cobalt",
         "What was the blue paint made with?", ("cobalt",)),
        ("What clay is porcelain made from?", ("kaolin",))),
    "The Phoenicians": TopicQA(
        ("What was the purple dye made from?", ("sea snails", "snails")),
        ("Around 600 BC Phoenician sailors may have sailed around Africa",
         "When may Phoenician sailors have sailed around Africa?", ("600 bc",)),
        ("Which city did the Phoenicians found in North Africa?", ("carthage",))),
    "Roman Mosaics": TopicQA(
        ("What are the small cubes of a mosaic called?", ("tesserae",)),
        ("The Alexander Mosaic is made of about one and a half million pieces",
         "How many pieces make up the Alexander Mosaic?", ("one and a half million",)),
        ("Where did rich Romans put their mosaics?", ("dining rooms", "floors"))),
    "The Stirrup": TopicQA(
        ("Who brought stirrups to Europe?", ("avars",)),
        ("Mongol archers could shoot backwards at full gallop",
         "How could Mongol archers shoot?", ("backwards",)),
        ("Why did the stirrup help riders fight?", ("without falling off",))),
    "Windmills": TopicQA(
        ("What did Dutch windmills do?", ("pumped water", "polders")),
        ("Kinderdijk has nineteen windmills built around 1740",
         "How many windmills stand at Kinderdijk?", ("nineteen",)),
        ("Where were the first windmills built?", ("persia",))),
    "Double Entry Bookkeeping": TopicQA(
        ("Who described double entry bookkeeping in 1494?", ("pacioli",)),
        ("The oldest surviving double entry records come from Genoa in 1340",
         "Where do the oldest double entry records come from?", ("genoa",)),
        ("How does a merchant know a mistake was made?", ("do not balance",))),
    "Refrigeration": TopicQA(
        ("Who became rich shipping ice?", ("tudor",)),
        ("Some refrigerant gases damaged the ozone layer and were banned",
         "Why were some refrigerant gases banned?", ("ozone layer",)),
        ("How does a fridge keep things cold?", ("evaporate", "draws heat"))),
    "The Elevator": TopicQA(
        ("Where was the first passenger elevator installed?", ("new york store",)),
        ("The Burj Khalifa has 57 elevators",
         "How many elevators does the Burj Khalifa have?", ("57 elevators",)),
        ("How did Otis show that his brake was safe?", ("rope cut",))),
    "The Barcode": TopicQA(
        ("What was the first product ever scanned?", ("chewing gum",)),
        ("Around five billion barcodes are scanned every day",
         "How many barcodes are scanned every day?", ("five billion",)),
        ("Where did Woodland first draw the idea?", ("sand",))),
    "Radar": TopicQA(
        ("Which device made radar small enough for aircraft?", ("magnetron",)),
        ("Radar stands for radio detection and ranging",
         "What does radar stand for?", ("radio detection and ranging",)),
        ("How does radar tell how far away something is?", ("time an echo takes",))),
    "The Incas": TopicQA(
        ("How did the Incas keep records?", ("knotted strings", "quipu")),
        ("Machu Picchu was built around 1450",
         "When was Machu Picchu built?", ("1450",)),
        ("Who captured the Inca emperor?", ("pizarro",))),
    "The Hundred Years War": TopicQA(
        ("Which siege did Joan of Arc lift?", ("orleans",)),
        ("The Black Prince won the battle of Poitiers in 1356",
         "Who won the battle of Poitiers?", ("black prince",)),
        ("How long did the Hundred Years War really last?", ("1337 to 1453",))),
    "The Dead Sea Scrolls": TopicQA(
        ("Who found the first scrolls?", ("shepherd",)),
        ("One scroll is made of copper and lists hidden treasure",
         "What does the copper scroll list?", ("hidden treasure",)),
        ("What were most of the scrolls written on?", ("animal skin",))),
    "The Sewing Machine": TopicQA(
        ("Where was the eye of Howe's needle?", ("near the point",)),
        ("Thimonnier's French factory was wrecked by tailors in 1831",
         "Who wrecked Thimonnier's factory?", ("tailors",)),
        ("How could families afford a Singer machine?", ("instalments", "a little each month"))),
}

DEV5_OFF_TOPIC: tuple[str, ...] = (
    "Who painted the ceiling of the Sistine Chapel?",
    "What is the tallest mountain in Africa?",
    "How many strings does a guitar have?",
    "Who was the first woman to win a Nobel Prize?",
    "What is the currency of Japan?",
    "When did the First World War end?",
    "How do bees make honey?",
    "What is the main ingredient of guacamole?",
    "Who wrote Hamlet?",
    "How deep is the Pacific Ocean?",
    "Which planet has rings?",
    "What causes the seasons?",
)
