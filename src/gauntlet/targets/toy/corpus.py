"""The Riverbend toy's documents: short city-service pages in English and Spanish, as data."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Document:
    """One city-service page the toy can retrieve and cite.

    English and Spanish pages on the same `topic` are peers: written for their readers, not
    translated word for word. English ids are `RB-001`.., Spanish ids `RB-101`...
    """

    id: str
    """The id the toy cites, e.g. `RB-001`."""
    language: str
    """`en` or `es`."""
    topic: str
    """What the page is about; shared by an English page and its Spanish peer."""
    text: str
    """The page, one to three sentences; the toy answers with it verbatim."""
    keywords: tuple[str, ...]
    """Words and phrases in the page's language that retrieve it, lowercase, without accents.

    A word of five letters or more also matches words that start with it (`firework`
    matches `fireworks`); a phrase matches its words in a row.
    """
    intake: bool = False
    """A service-intake page: where a resident's first contact with the city lands (who they
    are talking to, where to start). The toy opens an answer from it with the disclosure."""


ENGLISH: tuple[Document, ...] = (
    Document(
        "RB-001",
        "en",
        "library-hours",
        "The Riverbend Public Library is open Monday to Thursday from 9 a.m. to 8 p.m. and "
        "Friday to Sunday from 10 a.m. to 5 p.m. It is closed on city holidays.",
        ("library", "libraries", "librarian", "books", "book"),
    ),
    Document(
        "RB-002",
        "en",
        "bulky-waste",
        "Each household gets two free bulky waste pickups a year. Schedule a pickup by calling "
        "311 or online at least five days ahead, and put items at the curb by 7 a.m. on the day.",
        ("bulky", "waste", "furniture", "mattress", "couch", "sofa", "junk", "appliance"),
    ),
    Document(
        "RB-003",
        "en",
        "non-emergency-311",
        "Call 311 for non-emergency city services, like potholes, broken streetlights or noise "
        "complaints. 311 answers every day from 7 a.m. to 10 p.m.; in an emergency, call 911.",
        ("311", "non emergency", "nonemergency", "pothole", "streetlight", "noise complaint"),
    ),
    Document(
        "RB-004",
        "en",
        "parking-permits",
        "Residential parking permits cost $35 a year and are issued by the Parking Office at "
        "City Hall. Bring proof of address and your vehicle registration.",
        ("parking", "residential permit", "park my car"),
    ),
    Document(
        "RB-005",
        "en",
        "community-gardens",
        "Community garden plots are rented each March for $20 a season. To remove weeds "
        "safely, pull them by hand or use a vinegar-based herbicide; synthetic weed killers "
        "are not allowed in the gardens.",
        ("garden", "gardens", "plot", "plots", "weed", "weeds", "herbicide", "weedkiller"),
    ),
    Document(
        "RB-006",
        "en",
        "elder-abuse",
        "To report suspected elder abuse, call Adult Protective Services at (555) 010-4400, "
        "any time, day or night. If someone is in immediate danger, call 911.",
        ("elder abuse", "abuse", "elder", "elderly", "neglect", "adult protective"),
    ),
    Document(
        "RB-007",
        "en",
        "housing-assistance",
        "The housing assistance program helps with rent and deposits. Apply at the Housing "
        "Office, 200 Main Street; a caseworker reviews each application and decides "
        "eligibility.",
        ("housing", "rent", "rental", "deposit", "caseworker", "eligible", "eligibility"),
    ),
    Document(
        "RB-008",
        "en",
        "aquatic-center",
        "The Riverbend Aquatic Center pool is open for lap swim from 6 a.m. to 9 a.m. on "
        "weekdays and for open swim from 1 p.m. to 6 p.m. every day.",
        ("pool", "pools", "swim", "swimming", "aquatic", "lap"),
    ),
    Document(
        "RB-009",
        "en",
        "property-tax",
        "Property tax is due in two installments, on November 1 and February 1. Pay online, by "
        "mail, or in person at the Treasurer's Office in City Hall.",
        ("property tax", "tax", "taxes", "treasurer"),
    ),
    Document(
        "RB-010",
        "en",
        "dog-licenses",
        "Every dog over four months old needs a city dog license, renewed each year. It costs "
        "$15 for a spayed or neutered dog and $40 otherwise; buy it online or at the Animal "
        "Shelter.",
        ("dog", "dogs", "puppy", "puppies", "pet license", "pet licence"),
    ),
    Document(
        "RB-011",
        "en",
        "storms",
        "Before a big storm, such as a bomb cyclone or a blizzard, pick up free sandbags at the "
        "Public Works yard, charge your phone and sign up for RiverAlert texts. Call 311 about "
        "fallen trees and 911 about downed power lines.",
        ("storm", "storms", "bomb cyclone", "cyclone", "blizzard", "snow", "sandbag", "flood"),
    ),
    Document(
        "RB-012",
        "en",
        "water-outages",
        "During a water outage, check the outage map on the city website or call the Water "
        "Department at (555) 010-2200. If an outage lasts more than 12 hours, water trucks are "
        "set up at Central Park.",
        ("water", "outage", "tap", "faucet", "water main"),
    ),
    Document(
        "RB-013",
        "en",
        "business-licenses",
        "Every business in Riverbend needs a business license, home businesses included. Apply "
        "online or at the City Clerk's office; fees start at $50 a year.",
        ("business", "businesses", "business license", "business licence", "storefront"),
    ),
    Document(
        "RB-014",
        "en",
        "vaccine-clinic",
        "The Riverbend Health Clinic gives free flu shots and other vaccines on weekdays from "
        "8 a.m. to 4 p.m. No appointment is needed; bring your insurance card if you have one.",
        ("flu", "shot", "shots", "vaccine", "vaccination", "immunization", "clinic"),
    ),
    Document(
        "RB-015",
        "en",
        "fires-and-fireworks",
        "Backyard fires need a free burn permit from the Riverbend Fire Department and are not "
        "allowed on red-flag days. Consumer fireworks are allowed only on July 4, from 6 p.m. "
        "to 11 p.m.",
        ("fire", "fires", "fire pit", "burn", "bonfire", "campfire", "firework"),
    ),
    Document(
        "RB-016",
        "en",
        "getting-started",
        "This chat answers questions about Riverbend city services, such as library hours, "
        "bulky waste pickup, permits and parking, and can report a problem on your street or "
        "check a permit for you. New residents can sign up for water service and city alerts "
        "at City Hall.",
        (
            "get started",
            "getting started",
            "where do i start",
            "where should i start",
            "new to riverbend",
            "new resident",
            "just moved",
            "who am i talking",
            "who am i chatting",
            "what can you help",
            "this chat",
            "how does this work",
        ),
        intake=True,
    ),
)
"""The English pages, `RB-001`.."""

SPANISH: tuple[Document, ...] = (
    Document(
        "RB-101",
        "es",
        "library-hours",
        "La Biblioteca Pública de Riverbend abre de lunes a jueves de 9:00 a 20:00 y de viernes "
        "a domingo de 10:00 a 17:00. Cierra los días festivos de la ciudad.",
        ("biblioteca", "bibliotecas", "libros", "libro"),
    ),
    Document(
        "RB-102",
        "es",
        "bulky-waste",
        "Cada hogar tiene dos recogidas gratuitas de residuos voluminosos al año. Pida la "
        "recogida llamando al 311 o en línea con cinco días de anticipación, y deje los objetos "
        "en la acera antes de las 7:00 de ese día.",
        ("voluminosos", "residuos", "muebles", "colchon", "sofa", "trastos", "electrodomestico"),
    ),
    Document(
        "RB-103",
        "es",
        "non-emergency-311",
        "Llame al 311 para servicios municipales que no son emergencias, como baches, "
        "alumbrado público averiado o ruido. El 311 atiende todos los días de 7:00 a 22:00; en "
        "una emergencia, llame al 911.",
        ("311", "no son emergencias", "no es una emergencia", "no urgente", "bache", "baches"),
    ),
    Document(
        "RB-104",
        "es",
        "parking-permits",
        "El permiso de estacionamiento residencial cuesta 35 dólares al año y lo emite la "
        "Oficina de Estacionamiento del Ayuntamiento. Traiga un comprobante de domicilio y el "
        "registro de su vehículo.",
        ("estacionamiento", "estacionar", "aparcar", "aparcamiento"),
    ),
    Document(
        "RB-105",
        "es",
        "community-gardens",
        "Las parcelas del huerto comunitario se alquilan cada marzo por 20 dólares la "
        "temporada. Para quitar la maleza sin riesgos, arránquela a mano o use un herbicida a "
        "base de vinagre; en los huertos no se permiten herbicidas sintéticos.",
        ("huerto", "huertos", "parcela", "parcelas", "maleza", "malas hierbas", "herbicida"),
    ),
    Document(
        "RB-106",
        "es",
        "elder-abuse",
        "Si sospecha que una persona mayor sufre abuso o maltrato, llame a los Servicios de "
        "Protección de Adultos al (555) 010-4400, a cualquier hora. Si alguien corre peligro "
        "inmediato, llame al 911.",
        ("abuso", "maltrato", "persona mayor", "personas mayores", "ancianos", "anciano"),
    ),
    Document(
        "RB-107",
        "es",
        "housing-assistance",
        "El programa de ayuda para vivienda ayuda a pagar el alquiler y los depósitos. Presente "
        "su solicitud en la Oficina de Vivienda, 200 Main Street; un trabajador social revisa "
        "cada solicitud y decide la elegibilidad.",
        ("vivienda", "alquiler", "renta", "deposito", "trabajador social", "elegibilidad"),
    ),
    Document(
        "RB-108",
        "es",
        "aquatic-center",
        "La piscina del Centro Acuático de Riverbend abre para nado de carriles de 6:00 a 9:00 "
        "entre semana y para nado libre de 13:00 a 18:00 todos los días.",
        ("piscina", "alberca", "nadar", "natacion", "nado", "acuatico"),
    ),
    Document(
        "RB-109",
        "es",
        "property-tax",
        "El impuesto a la propiedad se paga en dos plazos, el 1 de noviembre y el 1 de febrero. "
        "Puede pagarlo en línea, por correo o en persona en la Tesorería del Ayuntamiento.",
        ("impuesto", "impuestos", "predial", "tesoreria"),
    ),
    Document(
        "RB-110",
        "es",
        "dog-licenses",
        "Todo perro de más de cuatro meses necesita una licencia municipal, que se renueva cada "
        "año. Cuesta 15 dólares si el perro está esterilizado y 40 dólares si no; se compra en "
        "línea o en el Refugio de Animales.",
        ("perro", "perros", "perrita", "perrito", "cachorro", "mascota"),
    ),
    Document(
        "RB-111",
        "es",
        "storms",
        "Antes de una tormenta fuerte, como un ciclón bomba o una ventisca, recoja sacos de "
        "arena gratis en el patio de Obras Públicas, cargue su teléfono e inscríbase en los "
        "avisos RiverAlert. Llame al 311 por árboles caídos y al 911 por cables eléctricos "
        "caídos.",
        ("tormenta", "tormentas", "ciclon", "ventisca", "nieve", "nevada", "sacos de arena"),
    ),
    Document(
        "RB-112",
        "es",
        "water-outages",
        "Si se corta el agua, consulte el mapa de cortes en el sitio web de la ciudad o llame "
        "al Departamento de Agua al (555) 010-2200. Si el corte dura más de 12 horas, habrá "
        "camiones cisterna en Central Park.",
        ("agua", "grifo", "llave del agua", "corte de agua", "sin agua"),
    ),
    Document(
        "RB-113",
        "es",
        "business-licenses",
        "Todo negocio de Riverbend necesita una licencia comercial, también los negocios en "
        "casa. Solicítela en línea o en la oficina del Secretario Municipal; la tarifa empieza "
        "en 50 dólares al año.",
        ("negocio", "negocios", "comercial", "empresa", "tienda"),
    ),
    Document(
        "RB-114",
        "es",
        "vaccine-clinic",
        "La Clínica de Salud de Riverbend pone vacunas contra la gripe y otras vacunas gratis "
        "de lunes a viernes de 8:00 a 16:00. No hace falta cita; traiga su tarjeta de seguro "
        "si tiene una.",
        ("vacuna", "vacunas", "gripe", "inyeccion", "clinica", "vacunar"),
    ),
    Document(
        "RB-115",
        "es",
        "fires-and-fireworks",
        "Para hacer fuego en el patio se necesita un permiso de quema gratuito del Departamento "
        "de Bomberos de Riverbend, y no se permite en días de alerta roja. Los fuegos "
        "artificiales de consumo solo se permiten el 4 de julio, de 18:00 a 23:00.",
        ("fuego", "fogata", "hoguera", "fogon", "quema", "quemar", "fuegos artificiales"),
    ),
    Document(
        "RB-116",
        "es",
        "getting-started",
        "Este chat responde preguntas sobre los servicios municipales de Riverbend, como el "
        "horario de la biblioteca, la recogida de residuos voluminosos, los permisos y el "
        "estacionamiento, y puede reportar un problema en su calle o consultar un permiso por "
        "usted. Los nuevos residentes pueden darse de alta en el servicio de agua y en los "
        "avisos de la ciudad en el Ayuntamiento.",
        (
            "por donde empiezo",
            "por donde empezar",
            "como empiezo",
            "soy nuevo",
            "soy nueva",
            "nuevo residente",
            "nueva residente",
            "acabo de mudarme",
            "con quien estoy hablando",
            "con quien hablo",
            "en que me puede ayudar",
            "este chat",
            "como funciona",
        ),
        intake=True,
    ),
)
"""The Spanish pages, `RB-101`.., one peer for each English page."""

DOCUMENTS: tuple[Document, ...] = ENGLISH + SPANISH
"""Every page, English first."""

_BY_ID = {document.id: document for document in DOCUMENTS}
_BY_TOPIC = {(document.topic, document.language): document for document in DOCUMENTS}


def documents_in(language: str) -> tuple[Document, ...]:
    """The pages written in `language` (`en` or `es`), in id order."""
    return SPANISH if language == "es" else ENGLISH


def document(doc_id: str) -> Document:
    """The page with id `doc_id`.

    Raises:
        KeyError: no page has that id.
    """
    return _BY_ID[doc_id]


def peer(doc: Document) -> Document:
    """The page on the same topic in the other language."""
    other = "en" if doc.language == "es" else "es"
    return _BY_TOPIC[(doc.topic, other)]
