/// The built-in recipe catalogue meal plans are generated from.
struct Recipe: Sendable, Codable, Equatable {
    enum MealType: String, Codable, Sendable, CaseIterable { case breakfast, lunch, dinner }
    var name: String
    var mealType: MealType
    var ingredients: [String]
    var calories: Int
    var protein: Int
    /// Dietary tags critiques can exclude: fish, meat, dairy, eggs, gluten, nuts, pork.
    var tags: Set<String>
}

enum RecipeCatalogue {
    static let all: [Recipe] = [
        // Breakfast
        .init(name: "Greek yogurt with berries and walnuts", mealType: .breakfast, ingredients: ["greek yogurt", "blueberries", "walnuts", "honey"], calories: 380, protein: 24, tags: ["dairy", "nuts"]),
        .init(name: "Spinach and feta omelette", mealType: .breakfast, ingredients: ["eggs", "spinach", "feta", "olive oil"], calories: 420, protein: 28, tags: ["eggs", "dairy"]),
        .init(name: "Overnight oats with banana", mealType: .breakfast, ingredients: ["rolled oats", "oat milk", "banana", "chia seeds"], calories: 410, protein: 14, tags: ["gluten"]),
        .init(name: "Smoked salmon bagel", mealType: .breakfast, ingredients: ["bagel", "smoked salmon", "cream cheese", "capers"], calories: 470, protein: 27, tags: ["fish", "gluten", "dairy"]),
        .init(name: "Tofu scramble with peppers", mealType: .breakfast, ingredients: ["firm tofu", "bell peppers", "turmeric", "spinach"], calories: 340, protein: 22, tags: []),
        .init(name: "Cottage cheese pancakes", mealType: .breakfast, ingredients: ["cottage cheese", "eggs", "oat flour", "maple syrup"], calories: 430, protein: 30, tags: ["dairy", "eggs", "gluten"]),
        .init(name: "Peanut butter toast with apple", mealType: .breakfast, ingredients: ["whole-grain bread", "peanut butter", "apple"], calories: 400, protein: 15, tags: ["gluten", "nuts"]),
        .init(name: "Turkey sausage breakfast wrap", mealType: .breakfast, ingredients: ["tortilla", "turkey sausage", "eggs", "salsa"], calories: 460, protein: 32, tags: ["meat", "eggs", "gluten"]),
        .init(name: "Chia pudding with mango", mealType: .breakfast, ingredients: ["chia seeds", "coconut milk", "mango"], calories: 320, protein: 9, tags: []),
        // Lunch
        .init(name: "Grilled chicken quinoa bowl", mealType: .lunch, ingredients: ["chicken breast", "quinoa", "cucumber", "tahini"], calories: 560, protein: 45, tags: ["meat"]),
        .init(name: "Tuna nicoise salad", mealType: .lunch, ingredients: ["tuna", "green beans", "eggs", "olives", "potatoes"], calories: 520, protein: 38, tags: ["fish", "eggs"]),
        .init(name: "Lentil soup with crusty bread", mealType: .lunch, ingredients: ["red lentils", "carrots", "cumin", "bread"], calories: 480, protein: 24, tags: ["gluten"]),
        .init(name: "Chickpea and avocado wrap", mealType: .lunch, ingredients: ["chickpeas", "avocado", "tortilla", "lime"], calories: 510, protein: 18, tags: ["gluten"]),
        .init(name: "Shrimp rice paper rolls", mealType: .lunch, ingredients: ["shrimp", "rice paper", "vermicelli", "mint", "peanut sauce"], calories: 430, protein: 26, tags: ["fish", "nuts"]),
        .init(name: "Turkey and hummus sandwich", mealType: .lunch, ingredients: ["turkey breast", "hummus", "sourdough", "rocket"], calories: 530, protein: 36, tags: ["meat", "gluten"]),
        .init(name: "Halloumi and roasted vegetable salad", mealType: .lunch, ingredients: ["halloumi", "courgette", "red onion", "farro"], calories: 550, protein: 25, tags: ["dairy", "gluten"]),
        .init(name: "Black bean burrito bowl", mealType: .lunch, ingredients: ["black beans", "brown rice", "corn", "salsa", "avocado"], calories: 590, protein: 21, tags: []),
        .init(name: "Edamame soba noodle salad", mealType: .lunch, ingredients: ["soba noodles", "edamame", "carrot", "sesame"], calories: 500, protein: 23, tags: ["gluten"]),
        .init(name: "Mediterranean tofu grain bowl", mealType: .lunch, ingredients: ["smoked tofu", "bulgur", "tomato", "olives"], calories: 520, protein: 28, tags: ["gluten"]),
        // Dinner
        .init(name: "Baked salmon with asparagus", mealType: .dinner, ingredients: ["salmon fillet", "asparagus", "lemon", "new potatoes"], calories: 610, protein: 42, tags: ["fish"]),
        .init(name: "Beef and broccoli stir-fry", mealType: .dinner, ingredients: ["flank steak", "broccoli", "soy sauce", "jasmine rice"], calories: 650, protein: 44, tags: ["meat", "gluten"]),
        .init(name: "Chickpea and spinach curry", mealType: .dinner, ingredients: ["chickpeas", "spinach", "coconut milk", "basmati rice"], calories: 620, protein: 20, tags: []),
        .init(name: "Cod with tomato and white beans", mealType: .dinner, ingredients: ["cod", "cannellini beans", "cherry tomatoes", "garlic"], calories: 540, protein: 46, tags: ["fish"]),
        .init(name: "Chicken fajitas", mealType: .dinner, ingredients: ["chicken thighs", "peppers", "tortillas", "sour cream"], calories: 680, protein: 46, tags: ["meat", "gluten", "dairy"]),
        .init(name: "Mushroom and lentil shepherd's pie", mealType: .dinner, ingredients: ["green lentils", "mushrooms", "sweet potato", "thyme"], calories: 560, protein: 24, tags: []),
        .init(name: "Pork tenderloin with roasted apples", mealType: .dinner, ingredients: ["pork tenderloin", "apples", "sage", "green beans"], calories: 590, protein: 48, tags: ["meat", "pork"]),
        .init(name: "Tofu pad thai", mealType: .dinner, ingredients: ["rice noodles", "tofu", "bean sprouts", "peanuts", "lime"], calories: 640, protein: 27, tags: ["nuts"]),
        .init(name: "Turkey meatballs with courgetti", mealType: .dinner, ingredients: ["turkey mince", "courgette", "tomato sauce", "parmesan"], calories: 520, protein: 43, tags: ["meat", "dairy"]),
        .init(name: "Tempeh and vegetable tray bake", mealType: .dinner, ingredients: ["tempeh", "sweet potato", "red onion", "broccoli"], calories: 570, protein: 32, tags: []),
        .init(name: "Prawn and pea risotto", mealType: .dinner, ingredients: ["prawns", "arborio rice", "peas", "parmesan"], calories: 630, protein: 34, tags: ["fish", "dairy"]),
    ]

    /// Words in a critique that name a tag.
    static let tagWords: [String: String] = [
        "fish": "fish", "seafood": "fish", "salmon": "fish", "tuna": "fish", "cod": "fish", "shrimp": "fish", "prawn": "fish", "prawns": "fish",
        "meat": "meat", "beef": "meat", "chicken": "meat", "turkey": "meat", "pork": "pork",
        "dairy": "dairy", "cheese": "dairy", "milk": "dairy", "yogurt": "dairy", "lactose": "dairy",
        "egg": "eggs", "eggs": "eggs", "gluten": "gluten", "wheat": "gluten", "bread": "gluten",
        "nut": "nuts", "nuts": "nuts", "peanut": "nuts", "peanuts": "nuts",
    ]
}
